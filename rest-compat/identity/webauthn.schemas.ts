// TypeBox schemas of the WebAuthn routes. Credentials are the JSON the browser's
// PublicKeyCredential.toJSON() (or @simplewebauthn/browser) produces; the ceremony options are
// @simplewebauthn/server's, passed through to navigator.credentials as they are.
import { Type, type Static } from '@sinclair/typebox';

const B64 = Type.String({ minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
const MfaToken = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'the challenge token from the login answer',
});
const Label = Type.Union([Type.String({ maxLength: 100 }), Type.Null()]);
const Extensions = Type.Object({}, { additionalProperties: true });
const Attachment = Type.Optional(Type.String({ maxLength: 32 }));

export const RegistrationCredential = Type.Object(
  {
    id: B64,
    rawId: B64,
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: B64,
      attestationObject: B64,
      transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
      authenticatorData: Type.Optional(B64),
      publicKey: Type.Optional(B64),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
    }),
    clientExtensionResults: Type.Optional(Extensions),
    authenticatorAttachment: Attachment,
  },
  { description: 'the result of navigator.credentials.create(), as JSON' },
);

export const AuthenticationCredential = Type.Object(
  {
    id: B64,
    rawId: B64,
    type: Type.Literal('public-key'),
    response: Type.Object({
      clientDataJSON: B64,
      authenticatorData: B64,
      signature: B64,
      userHandle: Type.Optional(Type.String({ maxLength: 1024 })),
    }),
    clientExtensionResults: Type.Optional(Extensions),
    authenticatorAttachment: Attachment,
  },
  { description: 'the result of navigator.credentials.get(), as JSON' },
);

export const RegisterOptionsBody = Type.Object({ mfa_token: Type.Optional(MfaToken) });
export const AuthenticateOptionsBody = Type.Object({ mfa_token: MfaToken });
export const CeremonyOptions = Type.Object(
  { challenge: Type.String() },
  {
    additionalProperties: true,
    description:
      'PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON: pass to navigator.credentials (or @simplewebauthn/browser) as is',
  },
);

export const RegisterVerifyBody = Type.Object({
  credential: RegistrationCredential,
  label: Type.Optional(Label),
  mfa_token: Type.Optional(MfaToken),
});
export const AuthenticateVerifyBody = Type.Object({ mfa_token: MfaToken, credential: AuthenticationCredential });
export const FactorRenameBody = Type.Object({ label: Label });

export type RegisterOptionsBodyT = Static<typeof RegisterOptionsBody>;
export type AuthenticateOptionsBodyT = Static<typeof AuthenticateOptionsBody>;
export type RegisterVerifyBodyT = Static<typeof RegisterVerifyBody>;
export type AuthenticateVerifyBodyT = Static<typeof AuthenticateVerifyBody>;
export type FactorRenameBodyT = Static<typeof FactorRenameBody>;
