import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';

describe('SMTP options', () => {
  it('default to optional AUTH and a 25 MB message limit', () => {
    expect(loadConfig([], {})).toMatchObject({ smtpPort: 1025, smtpAuthRequired: false, smtpMaxSize: 26214400 });
  });

  it('take --smtp-auth-required as a switch and PIGEONHOLE_SMTP_AUTH_REQUIRED as true/false', () => {
    expect(loadConfig(['--smtp-auth-required'], {}).smtpAuthRequired).toBe(true);
    expect(loadConfig([], { PIGEONHOLE_SMTP_AUTH_REQUIRED: 'true' }).smtpAuthRequired).toBe(true);
    expect(loadConfig([], { PIGEONHOLE_SMTP_AUTH_REQUIRED: '0' }).smtpAuthRequired).toBe(false);
    expect(loadConfig(['--smtp-auth-required'], { PIGEONHOLE_SMTP_AUTH_REQUIRED: 'false' }).smtpAuthRequired).toBe(true);
    expect(() => loadConfig([], { PIGEONHOLE_SMTP_AUTH_REQUIRED: 'maybe' })).toThrow('PIGEONHOLE_SMTP_AUTH_REQUIRED: "maybe" is not true or false');
  });

  it('take --smtp-max-size in bytes', () => {
    expect(loadConfig(['--smtp-max-size', '1000'], {}).smtpMaxSize).toBe(1000);
    expect(() => loadConfig(['--smtp-max-size', '0'], {})).toThrow('--smtp-max-size: "0" is not a positive whole number');
  });
});
