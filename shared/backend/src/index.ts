export { probeBackend } from './probe';
export type { BackendTarget, BackendProbe } from './probe';
export { createChatClient, backendTargetFromConfig, safeUrl, BackendError, DEFAULT_CHAT_TIMEOUT_MS, DEFAULT_CHAT_MAX_TOKENS } from './chat';
export type { ChatClient, ChatClientOptions, ChatMessage, ChatOptions, ChatAnswer, ChatUsage, BackendConfigSection, BackendErrorCode } from './chat';
export { isLocalBackendUrl, isLoopbackBackendUrl } from './locality';
export { createEmbeddingClient, DEFAULT_EMBEDDING_TIMEOUT_MS, DEFAULT_EMBEDDING_BATCH_SIZE } from './embeddings';
export type { EmbeddingClient, EmbeddingClientOptions, EmbedOptions } from './embeddings';
