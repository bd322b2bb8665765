import { expect } from 'vitest';
import { ConfigError, parseSandboxConfig } from '../../server/domain/directory/sandbox-config.ts';

/** The message a configuration is refused with (as the file `custom.json`); fails if it is accepted. */
export function configProblem(json: unknown): string {
  try {
    parseSandboxConfig(json, 'custom.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}
