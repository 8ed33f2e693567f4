// The workflow that reviews a compliance report (issue 28 item 4), named here because two services
// meet on it: compliance starts it for each report submitted for sign-off, and workflow runs it as
// a reserved built-in pack (subgraphs/workflow/builtin-packs.ts). Its first step is an approval
// whose reviewer must hold SIGN_OFF_REVIEWER_ROLE (or be the tenant's admin), so the workflow's own
// decide refuses anyone else, and its four-eyes rule refuses the report's submitter.

/** The pack id: reserved, so a registry pack of that id never replaces the gate. */
export const COMPLIANCE_SIGN_OFF_PACK_ID = 'compliance-report-sign-off';
export const COMPLIANCE_SIGN_OFF_PACK_VERSION = '1.0.0';
/** The tenant role that may decide the sign-off (compliance's own door demands the same). */
export const SIGN_OFF_REVIEWER_ROLE = 'reviewer';
/** The approval step's name (the task's `step`). */
export const SIGN_OFF_REVIEW_STEP = 'review-report';
