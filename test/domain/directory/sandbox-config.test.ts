import { describe, expect, it } from 'vitest';
import { SAMPLE_CONFIG } from '../../../server/config.ts';
import { loadSandboxConfig, parseSandboxConfig } from '../../../server/domain/directory/sandbox-config.ts';
import { flow } from '../../support/flow-helpers.ts';
import { configProblem } from '../../support/config-problem.ts';

const withFlow = (steps: unknown[]) => {
  const config = structuredClone(loadSandboxConfig(SAMPLE_CONFIG)) as any;
  config.flows.push(flow('TEST', steps));
  return config;
};
const problem = configProblem;

describe('flow definitions refused at start-up', () => {
  it('a wait of nothing', () => {
    expect(problem(withFlow([{ type: 'wait', duration: '0s' }]))).toBe(
      'Invalid configuration file custom.json:\n  flows[2].steps[0].duration: must be longer than 0s',
    );
    expect(problem(withFlow([{ type: 'wait', untilFlag: 'x', timeout: '0m' }]))).toBe(
      'Invalid configuration file custom.json:\n  flows[2].steps[0].timeout: must be longer than 0s',
    );
  });

  it('a jump back with no wait in between (it would loop forever)', () => {
    const loop = withFlow([
      { name: 'again', type: 'send_email', subject: 's', html: 'h' },
      { type: 'condition', flag: 'stop', whenMissing: 'again' },
    ]);
    expect(problem(loop)).toBe(
      'Invalid configuration file custom.json:\n  flows[2].steps[1].whenMissing: jumping back to "again" with no wait step in between would loop forever',
    );
    const self = withFlow([{ name: 'me', type: 'condition', flag: 'x', whenPresent: 'me' }]);
    expect(problem(self)).toContain('flows[2].steps[0].whenPresent: jumping back to "me" with no wait step in between would loop forever');
  });

  it('accepts a jump back with a wait in between, and a jump forward', () => {
    const ok = withFlow([
      { name: 'again', type: 'wait', duration: '1d' },
      { type: 'condition', flag: 'stop', whenMissing: 'again' },
      { type: 'condition', flag: 'x', whenPresent: 'last' },
      { name: 'last', type: 'action', action: 'suppress' },
    ]);
    expect(parseSandboxConfig(ok, 'ok.json').flows[2]!.steps).toHaveLength(4);
  });
});
