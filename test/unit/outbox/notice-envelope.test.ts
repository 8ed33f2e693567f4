// The notice envelope is built as a plain object (platform/outbox/notice.envelope.ts); these tests
// hold every kind the platform writes to the `cloudevents` class's own validation, and check the
// refusals it keeps per notice (subject, tenant) and per kind (source, type).
import { CloudEvent, ValidationError } from 'cloudevents';
import { EVENT_CATALOGUE } from '../../../platform/contracts/events.catalogue';
import { eventContract } from '../../../platform/contracts/event-contract';
import { noticeEnvelope, traceparentOf } from '../../../platform/outbox/notice.envelope';
import { Type } from '@sinclair/typebox';

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

describe('noticeEnvelope', () => {
  it.each(EVENT_CATALOGUE.map((c) => [c.topic, c] as const))(
    '%s: a valid CloudEvents 1.0 envelope, the same JSON the class gives',
    (_topic, contract) => {
      const envelope = noticeEnvelope(contract.producer, contract, { any: 'payload' } as never, {
        tenantId: 'tenant-a',
        subject: 'thing/1',
        correlationId: 'corr-1',
      });
      const event = new CloudEvent(envelope as never);
      expect(event.validate()).toBe(true);
      expect(JSON.parse(JSON.stringify(event))).toEqual(envelope);
      expect(Object.keys(envelope)).toEqual(Object.keys(JSON.parse(JSON.stringify(event))));
      expect(envelope).toMatchObject({
        source: `urn:platform:service:${contract.producer}`,
        type: contract.topic,
        dataschema: `urn:platform:event:${contract.topic}:v${contract.version}`,
        tenantid: 'tenant-a',
      });
      expect(envelope.traceparent).toMatch(TRACEPARENT);
    },
  );

  const contract = EVENT_CATALOGUE[0]!;

  it('refuses an empty subject and a tenant that is not a string, as the class did', () => {
    const build = (ctx: { tenantId: unknown; subject: unknown }) => () =>
      noticeEnvelope('validation', contract, {} as never, ctx as never);
    expect(build({ tenantId: 't', subject: '' })).toThrow(ValidationError);
    expect(build({ tenantId: 't', subject: undefined })).toThrow(ValidationError);
    expect(build({ tenantId: undefined, subject: 's' })).toThrow(ValidationError);
    expect(build({ tenantId: 't', subject: 's' })).not.toThrow();
  });

  it("refuses a kind whose topic or service breaks the class's rules, on every write", () => {
    const bad = eventContract({ ...contract, topic: '' });
    const build =
      (service: string, c = contract) =>
      () =>
        noticeEnvelope(service, c, {} as never, { tenantId: 't', subject: 's' });
    expect(build('validation', bad)).toThrow(ValidationError);
    expect(build('validation', bad)).toThrow(ValidationError);
    expect(build('a service with spaces')).toThrow(ValidationError);
    expect(build('a service with spaces')).toThrow(ValidationError);
    const fine = eventContract({ ...contract, topic: 'test.fine', schema: Type.Object({}) });
    expect(build('validation', fine)).not.toThrow();
  });

  it('gives every notice its own id and span, and one trace per correlation id', () => {
    const envelopes = Array.from({ length: 600 }, () =>
      noticeEnvelope('validation', contract, {} as never, { tenantId: 't', subject: 's', correlationId: 'c-1' }),
    );
    expect(new Set(envelopes.map((e) => e.id)).size).toBe(600);
    const spans = envelopes.map((e) => e.traceparent.split('-')[2]);
    // 600 spans cross the 4 KiB pool's refill (512 spans per fill).
    expect(new Set(spans).size).toBe(600);
    expect(new Set(envelopes.map((e) => e.traceparent.split('-')[1])).size).toBe(1);
    expect(traceparentOf({})).toMatch(TRACEPARENT);
    expect(traceparentOf({}).split('-')[1]).not.toBe(traceparentOf({}).split('-')[1]);
  });
});
