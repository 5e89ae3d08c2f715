export { ScopeError } from './errors';
export type { ScopeErrorCode } from './errors';
export { listCandidateFiles, headCommit } from './files';
export { createScopePolicy, scopePolicyFromConfig, normalizeRelativePath, sameRedaction, scopeKey } from './policy';
export type { ScopePolicy, ScopePolicyOptions, ScopeDecision } from './policy';
export {
  detectLanguage,
  isCodePath,
  CODE_LANGUAGES,
  LANGUAGE_BY_EXTENSION,
  LANGUAGE_BY_FILE_NAME,
  LANGUAGE_BY_INTERPRETER,
} from './language';
export type { Language } from './language';
export { decodeText, BINARY_SNIFF_BYTES, MAX_INVALID_UTF8_RATIO } from './binary';
export type { DecodedText } from './binary';
export { isLfsPointer, looksGenerated, looksMinified, textDegradeReason, GENERATED_HEADER_CHARS, LONG_LINE_CHARS } from './content-kind';
export type { DegradeReason } from './content-kind';
export { readScopedFile, DEFAULT_MAX_FILE_BYTES } from './read';
export type { ReadScopedFileOptions, ScopedFile, ScopedReadResult, ReadRefusal, ReadRefusalReason } from './read';
export { scopeCoverage, NON_SOURCE_FOLDERS, ROOT_FOLDER } from './coverage';
export type { ScopeCoverage, FolderCoverage } from './coverage';
export { gitSignals, coChangedWith, DEFAULT_MAX_SIGNAL_COMMITS, DEFAULT_MAX_COCHANGE_FILES } from './signals';
export type { GitSignals, GitSignalsOptions, FileGitSignal, CoChangePair } from './signals';
export { READ_ONLY_GIT_FLAGS, readOnlyGitEnv, runGit, streamGitLines, tryGit, worktreeReadConfig } from './git';
export type { GitCallOptions } from './git';
