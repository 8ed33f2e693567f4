// The audit events the events service writes (through the outbox, committed with the change).

/** Dead-lettered messages were put back on their subscription's queue. */
export const DLQ_REDRIVEN_EVENT = 'events.dlq_redriven';
