// Which browser origins may call the gateway. In development a frontend dev server on any
// localhost port just works; production allows exactly CORS_ORIGINS (none by default).
export type OriginCheck = (origin: string | undefined) => boolean;

const LOCAL_DEV_ORIGIN = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

export function corsOriginCheck(configured: readonly string[], production: boolean): OriginCheck {
  const listed = new Set(configured);
  return (origin) => {
    if (origin === undefined) return false;
    if (listed.has('*') || listed.has(origin)) return true;
    return !production && LOCAL_DEV_ORIGIN.test(origin);
  };
}
