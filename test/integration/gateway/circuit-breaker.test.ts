// A backend's breaker over its whole cycle through the gateway: failures open it (503 without
// calling the backend), after the reset timeout it half-opens and lets a probe through, and a
// successful probe closes it again. Waits on the breaker's reported state, never on wall time.
import { startFakeBackend, type FakeBackend } from '../../support/fixtures/fake-backend';
import { until } from '../../support/waiting';
import { deadUrl, fixtureSupergraphFile, startGateway, tokenFor } from './gateway.support';

jest.setTimeout(60_000);

describe('circuit breaker cycle', () => {
  let backend: FakeBackend;
  let gw: Awaited<ReturnType<typeof startGateway>>;
  let token: string;

  beforeAll(async () => {
    backend = await startFakeBackend();
    const nowhere = await deadUrl();
    gw = await startGateway({
      OCR_URL: backend.url,
      IDENTITY_URL: nowhere,
      SUPERGRAPH_PATH: fixtureSupergraphFile(`${nowhere}/graphql`),
      GATEWAY_UPSTREAM_TIMEOUT_MS: '200',
      BREAKER_VOLUME_THRESHOLD: '2',
      BREAKER_RESET_TIMEOUT_MS: '300',
    });
    token = await tokenFor('tenant-a');
  });
  afterAll(async () => {
    await gw?.close();
    await backend?.close();
  });

  const call = () => fetch(`${gw.url}/api/v1/ocr/extract`, { headers: { authorization: `Bearer ${token}` } });
  const breaker = async () => {
    const body = (await (
      await fetch(`${gw.url}/api/v1/services`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { services: { name: string; breaker: string }[] };
    return body.services.find((s) => s.name === 'ocr')!.breaker;
  };

  it('opens on failures, half-opens after the reset timeout, and closes on a good probe', async () => {
    expect((await call()).status).toBe(200);
    backend.hang = true;
    expect((await call()).status).toBe(504);
    expect((await call()).status).toBe(504);
    expect(await breaker()).toBe('open');
    expect((await call()).status).toBe(503);

    backend.hang = false;
    await until(async () => (await breaker()) !== 'open', 'the breaker to leave open after its reset timeout');
    expect(await breaker()).toBe('half-open');
    expect((await call()).status).toBe(200); // the probe
    expect(await breaker()).toBe('closed');
  });
});
