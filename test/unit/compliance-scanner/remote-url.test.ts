// The remote-URL checks and the clone transport's address guard, without a network: a name that
// resolves to loopback is refused in the socket's own lookup unless the operator allows loopback.
import { InputError } from '../../../platform/errors/domain-errors';
import { checkRemote, isRemotePath, remotePath } from '../../../subgraphs/compliance-scanner/remote-url';
import { guardedTransport } from '../../../subgraphs/compliance-scanner/remote-clone';

const policy = {
  allowedRemotes: ['https://git.example.com/acme/', 'mirror.example.org', '*.corp.example'],
  remoteAllowLoopback: false,
};

const refused = (raw: string, p = policy) => {
  try {
    checkRemote(raw, p);
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as InputError).issues[0]!.msg;
  }
  throw new Error(`${raw} was accepted`);
};

describe('checkRemote', () => {
  it('takes URLs under a prefix or on an allowed host, with the ref after #', () => {
    expect(checkRemote('https://git.example.com/acme/app.git#release/1.2', policy)).toEqual({
      url: 'https://git.example.com/acme/app.git',
      ref: 'release/1.2',
    });
    expect(checkRemote('https://mirror.example.org/x/y.git', policy).ref).toBeNull();
    expect(checkRemote('https://git.corp.example/y.git', policy).url).toBe('https://git.corp.example/y.git');
    expect(remotePath({ url: 'https://h/a.git', ref: 'v1' })).toBe('https://h/a.git#v1');
    expect(isRemotePath('https://h/a.git')).toBe(true);
    expect(isRemotePath('/srv/repos/a')).toBe(false);
  });

  it('refuses what the operator did not allow, naming why', () => {
    expect(refused('https://git.example.com/acme-evil/app.git')).toMatch(/SCANNER_ALLOWED_REMOTES/);
    expect(refused('https://git.example.com/acme/a.git', { ...policy, allowedRemotes: [] })).toMatch(/is empty/);
    expect(refused('http://git.example.com/acme/a.git')).toMatch(/Only https/);
    expect(refused('https://u:p@git.example.com/acme/a.git')).toMatch(/no credentials/);
    expect(refused('https://git.example.com/acme/a.git?token=x')).toMatch(/no query/);
    expect(refused('https://git.example.com/acme/a.git#a..b')).toMatch(/branch or tag/);
    expect(refused('not a url')).toMatch(/not a URL/);
  });

  it('refuses private and loopback address literals; loopback (and http to it) only when allowed', () => {
    const withIps = { ...policy, allowedRemotes: ['10.1.2.3', '127.0.0.1', '169.254.169.254', '[::1]'] };
    expect(refused('https://10.1.2.3/a.git', withIps)).toMatch(/private or reserved/);
    expect(refused('https://169.254.169.254/a.git', withIps)).toMatch(/private or reserved/);
    expect(refused('https://127.0.0.1/a.git', withIps)).toMatch(/private or reserved/);
    expect(refused('http://127.0.0.1/a.git', withIps)).toMatch(/Only https/);
    const loop = { ...withIps, remoteAllowLoopback: true };
    expect(checkRemote('http://127.0.0.1:9/a.git', loop).url).toBe('http://127.0.0.1:9/a.git');
    expect(refused('https://10.1.2.3/a.git', loop)).toMatch(/private or reserved/);
  });
});

describe('guardedTransport', () => {
  it('refuses a name resolving to a loopback address in the lookup itself', async () => {
    const http = guardedTransport(policy, { maxBytes: 1024, timeoutMs: 5000 }, Date.now() + 5000);
    await expect(
      http.request({ url: 'http://localhost:9/a.git/info/refs', method: 'GET', headers: {} }),
    ).rejects.toThrow(/private or reserved address/);
  });
});
