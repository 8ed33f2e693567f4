// The console's settings, its refresh-token cookie, and the page's line diff and version order.
import { loadConsoleConfig } from '../../../router/console/console.config';
import { CONSOLE_CSP, consoleCsp } from '../../../router/console/console.csp';
import { clearedSessionCookie, refreshTokenOf, sessionCookie } from '../../../router/console/session.cookie';
import { compareVersions, diffLines } from '../../../console/src/pages/text-diff';

describe('CONSOLE_ENABLED', () => {
  it('is on outside production and off in production unless set', () => {
    expect(loadConsoleConfig({}, false).enabled).toBe(true);
    expect(loadConsoleConfig({}, true).enabled).toBe(false);
    expect(loadConsoleConfig({ CONSOLE_ENABLED: 'true' }, true).enabled).toBe(true);
    expect(loadConsoleConfig({ CONSOLE_ENABLED: 'false' }, false).enabled).toBe(false);
    expect(() => loadConsoleConfig({ CONSOLE_ENABLED: 'maybe' }, false)).toThrow(/CONSOLE_ENABLED/);
  });
});

describe('the CSP', () => {
  it('allows nothing inline, nothing from another host, and no framing', () => {
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-|https?:|\bws:|\*/);
  });

  it("names the OIDC provider's origin in connect-src only, when the console signs in through it", () => {
    const csp = consoleCsp('https://id.example');
    expect(csp).toContain("connect-src 'self' https://id.example;");
    expect(csp.replace(' https://id.example', '')).toBe(CONSOLE_CSP);
    expect(consoleCsp('https://a.example; script-src *')).not.toMatch(/; script-src \*/);
    expect(consoleCsp()).toBe(CONSOLE_CSP);
  });
});

describe('the refresh-token cookie', () => {
  it('is httpOnly, SameSite=Strict, on the session path, Secure only over https', () => {
    const plain = sessionCookie('abc.def', { secure: false, maxAgeSeconds: 60 });
    expect(plain).toBe('console_refresh=abc.def; Path=/console/session; Max-Age=60; HttpOnly; SameSite=Strict');
    expect(sessionCookie('x', { secure: true, maxAgeSeconds: 1 })).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toContain('Max-Age=0');
  });

  it('is read back from a Cookie header among others; absent, empty or malformed is none', () => {
    expect(refreshTokenOf('a=1; console_refresh=tok%2Bx; b=2')).toBe('tok+x');
    expect(refreshTokenOf(undefined)).toBeUndefined();
    expect(refreshTokenOf('console_refresh=')).toBeUndefined();
    expect(refreshTokenOf('console_refresh=%E0%A4%A')).toBeUndefined();
    expect(refreshTokenOf('xconsole_refresh=1')).toBeUndefined();
  });
});

describe('the rule-pack diff', () => {
  it('marks added and removed lines and keeps the common ones', () => {
    expect(diffLines('a\nb\nc', 'a\nc\nd')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
    expect(diffLines('x', 'x')).toEqual([{ kind: 'same', text: 'x' }]);
  });

  it('orders versions by number, not by text', () => {
    expect(compareVersions('1.10.0', '1.9.0')).toBeGreaterThan(0);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
    expect(['2.0.0', '1.10.0', '1.2.0'].sort(compareVersions)).toEqual(['1.2.0', '1.10.0', '2.0.0']);
  });
});
