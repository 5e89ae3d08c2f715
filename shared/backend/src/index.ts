export { probeBackend } from './probe';
export type { BackendTarget, BackendProbe } from './probe';
