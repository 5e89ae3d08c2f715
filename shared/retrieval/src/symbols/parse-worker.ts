/**
 * Worker thread of the symbol parser pool: parses texts with tree-sitter off the main thread, so
 * parsing uses a second core while the main thread reads, hashes and indexes, and tree-sitter's
 * WebAssembly memory goes away when the pool lets the worker go.
 */
import { parentPort } from 'node:worker_threads';
import { extractSymbols } from './extract';

interface ParseRequest {
  id: number;
  language: string;
  text: string;
}

parentPort?.on('message', (request: ParseRequest) => {
  // References are not a ranking input: not collecting them saves most of the query's work.
  void extractSymbols(request.language, request.text, { references: false }).then((symbols) => {
    parentPort?.postMessage({ id: request.id, symbols });
  });
});
