import { toStoreError } from '../errors';

/** Runs one repository operation, turning driver errors into a StoreError naming the operation. */
export async function attempt<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toStoreError(err, operation);
  }
}
