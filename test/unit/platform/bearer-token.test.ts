// bearerToken: the plain form takes the fast path, every other form the header allows still parses.
import { bearerToken } from '../../../platform/auth/jwt';

describe('bearerToken', () => {
  it('reads the token of every accepted form', () => {
    expect(bearerToken('Bearer a.b.c')).toBe('a.b.c');
    expect(bearerToken('bearer a.b.c')).toBe('a.b.c');
    expect(bearerToken('Bearer   a.b.c  ')).toBe('a.b.c');
    expect(bearerToken('Bearer\ta.b.c')).toBe('a.b.c');
  });

  it('refuses what is not one bearer token', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken('Basic a.b.c')).toBeUndefined();
    expect(bearerToken('Bearera.b.c')).toBeUndefined();
  });
});
