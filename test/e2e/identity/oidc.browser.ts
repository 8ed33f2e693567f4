// A minimal "browser" for the OIDC e2e suite: plain fetch with a cookie jar, following redirects
// by hand until one leaves for the relying party's redirect_uri, filling the sign-in forms the
// provider's pages show (their action URLs are read from the HTML).

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface Page {
  url: string;
  status: number;
  html: string;
}

export class Browser {
  readonly jar = new CookieJar();

  constructor(private readonly stopAt: string) {}

  /** Follows redirects from `url`; returns the final page, or the redirect to the RP as `{callback}`. */
  async go(url: string, init: RequestInit = {}): Promise<Page | { callback: string }> {
    let next = url;
    let request: RequestInit = init;
    for (let hops = 0; hops < 20; hops++) {
      const res = await fetch(next, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: this.jar.header() },
      });
      this.jar.store(res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const target = new URL(location, next).href;
        if (target.startsWith(this.stopAt)) return { callback: target };
        next = target;
        request = {};
        continue;
      }
      return { url: next, status: res.status, html: await res.text() };
    }
    throw new Error('too many redirects');
  }

  async submit(page: Page, formAction: RegExp, fields: Record<string, string>): Promise<Page | { callback: string }> {
    const match = new RegExp(`action="([^"]*${formAction.source}[^"]*)"`).exec(page.html);
    if (!match) throw new Error(`no form matching ${formAction} on ${page.url}: ${page.html.slice(0, 300)}`);
    const action = new URL(
      match[1]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c))),
      page.url,
    ).href;
    return this.go(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export function isPage(x: Page | { callback: string }): x is Page {
  return 'html' in x;
}
