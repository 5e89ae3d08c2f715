import Joi from 'joi';
import { MAX_PAYLOAD_BYTES } from './defaults';
import { JobError } from './errors';
import type { JobHandler, RegisterOptions } from './types';

/** Job names appear in logs, Redis keys and CLI output: keep them plain. */
const NAME_SCHEMA = Joi.string().pattern(/^[a-z][a-z0-9._-]{0,63}$/);

interface Registration {
  handler: JobHandler<unknown>;
  schema?: Joi.Schema;
}

/** The handlers a queue knows, and the edge check every payload passes before it is queued. */
export class HandlerRegistry {
  private readonly entries = new Map<string, Registration>();

  /** Adds a handler; a second handler for one name is a programming error. */
  register<P>(name: string, handler: JobHandler<P>, options: RegisterOptions = {}): void {
    if (NAME_SCHEMA.validate(name).error) {
      throw new JobError('invalid_option', `job name '${name}' is invalid: use 1-64 lower-case letters, digits, '.', '_' or '-'`);
    }
    if (this.entries.has(name)) {
      throw new JobError('duplicate_job', `job '${name}' is already registered: register each job name once`);
    }
    const entry: Registration = { handler: handler as JobHandler<unknown> };
    if (options.payload) entry.schema = options.payload;
    this.entries.set(name, entry);
  }

  /** The handler for `name`, if registered in this process. */
  handler(name: string): JobHandler<unknown> | undefined {
    return this.entries.get(name)?.handler;
  }

  /** Registered names, sorted (for error messages). */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * Validates `payload` for job `name` and returns the value to store: converted by the schema and a plain
   * JSON value, so both backends hand handlers the same thing.
   */
  preparePayload(name: string, payload: unknown): unknown {
    const entry = this.entries.get(name);
    if (!entry) {
      const known = this.names();
      throw new JobError(
        'unknown_job',
        `unknown job '${name}': register it first (known: ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    let value = payload;
    if (entry.schema) {
      const { error, value: converted } = entry.schema.validate(payload, { abortEarly: true, convert: true });
      if (error) throw new JobError('invalid_payload', `invalid payload for job '${name}': ${error.message}`);
      value = converted;
    }
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (err) {
      throw new JobError('invalid_payload', `invalid payload for job '${name}': not JSON-serialisable (${String(err)})`);
    }
    if (json === undefined) {
      throw new JobError('invalid_payload', `invalid payload for job '${name}': not JSON-serialisable`);
    }
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_PAYLOAD_BYTES) {
      throw new JobError(
        'invalid_payload',
        `invalid payload for job '${name}': ${bytes} bytes exceeds ${MAX_PAYLOAD_BYTES}; pass identifiers, not content`,
      );
    }
    return JSON.parse(json) as unknown;
  }
}
