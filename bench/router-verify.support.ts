// autocannon `verifyBody` of bench/router.ts's honest load (loaded by path in the worker): an
// answer counts as a mismatch unless it is data without GraphQL errors.
export = (body: string): boolean => body.startsWith('{"data":{') && !body.includes('"errors":');
