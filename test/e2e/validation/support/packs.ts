// Rule packs and payloads the validation tests share. PII markers appear in payloads and in one
// pack's messages; no response, ledger event or log line may ever contain them.

export const PII = { email: 'alice.secret@example.com', ssn: '487-65-4320', cardMessage: '4111 1111 1111 1111' };

export const KYC_PACK = {
  metadata: { pack_id: 'kyc-basic', version: '1.0.0', name: 'KYC basic' },
  rules: [
    {
      rule_id: 'R1',
      type: 'FATAL',
      field: 'customer_id',
      operator: 'required',
      error_message: 'Customer id is required',
    },
    {
      rule_id: 'R2',
      type: 'FATAL',
      field: 'email',
      operator: 'matches',
      value: '^[^@\\s]+@[^@\\s]+\\.[a-z]+$',
      error_message: 'Email is not valid',
    },
    {
      rule_id: 'R3',
      type: 'WARNING',
      field: 'amount',
      operator: 'range',
      min: 0,
      max: 10000,
      error_message: 'Amount out of range',
    },
    {
      rule_id: 'R4',
      type: 'INFO',
      field: 'country',
      operator: 'in',
      value: ['US', 'CA'],
      error_message: 'Country outside North America',
    },
  ],
};

export const KYC_PACK_V2 = { ...KYC_PACK, metadata: { ...KYC_PACK.metadata, version: '2.0.0' } };

/** A pack whose author wrote PII into its messages: the engine redacts them before they leave. */
export const CHATTY_PACK = {
  metadata: { pack_id: 'chatty', version: '0.1.0' },
  rules: [
    {
      rule_id: 'C1',
      type: 'FATAL',
      field: 'ssn',
      operator: 'is_null',
      error_message: `Record of ${PII.email} has SSN ${PII.ssn} and card ${PII.cardMessage}`,
    },
  ],
};

export const GOOD_RECORD = { customer_id: 'C-1', email: 'ok@example.com', amount: 50, country: 'US' };
export const BAD_RECORD = {
  email: PII.email.replace('@', ' at '),
  amount: 20000,
  country: 'FR',
  ssn: PII.ssn,
  note: PII.email,
};
