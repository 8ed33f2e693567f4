// The router's error formatter on the shapes ApolloGateway and Apollo Router produce for failed
// subgraph calls, on the router's own refusals, and on errors it does not know.
import { GraphQLError } from 'graphql';
import { sanitizeError } from '../../../router/graphql/error-format';

describe('router error formatter', () => {
  it("turns ApolloGateway's HTTP-failure error (URL and raw body in extensions.response) into a neutral one naming the subgraph", () => {
    const gatewayError = {
      message: '502: Bad Gateway',
      extensions: {
        code: 'INTERNAL_SERVER_ERROR',
        serviceName: 'ledger',
        response: {
          url: 'http://10.1.2.3:8136/graphql',
          status: 502,
          statusText: 'Bad Gateway',
          body: '<html>nginx at /srv</html>',
        },
      },
    };
    expect(sanitizeError(gatewayError)).toEqual({
      message: "Subgraph 'ledger' gave an invalid response",
      extensions: { code: 'BAD_GATEWAY' },
    });
    const unauthorized = {
      ...gatewayError,
      extensions: {
        ...gatewayError.extensions,
        code: 'UNAUTHENTICATED',
        response: { ...gatewayError.extensions.response, status: 401 },
      },
    };
    expect(sanitizeError(unauthorized)).toEqual({
      message: "Subgraph 'ledger' did not accept the caller's credentials",
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it.each(['SUBREQUEST_HTTP_ERROR', 'SUBREQUEST_MALFORMED_RESPONSE'])(
    "maps Apollo Router's %s to BAD_GATEWAY with a neutral message",
    (code) => {
      const err = {
        message:
          "HTTP fetch failed from 'identity': 500: Internal Server Error at http://identity.internal:8082/graphql",
        extensions: { code, service: 'identity', serviceName: 'identity' },
      };
      expect(sanitizeError(err)).toEqual({
        message: "Subgraph 'identity' gave an invalid response",
        extensions: { code: 'BAD_GATEWAY' },
      });
    },
  );

  it("keeps the router's refusals with the numbers a client needs, and drops the rest", () => {
    const refused = new GraphQLError('Query is too expensive: cost 6006 exceeds the limit of 5000', {
      extensions: { code: 'QUERY_TOO_COMPLEX', cost: 6006, maxCost: 5000, http: { status: 400 } },
    });
    expect(sanitizeError(refused)).toEqual({
      message: refused.message,
      extensions: { code: 'QUERY_TOO_COMPLEX', cost: 6006, maxCost: 5000 },
    });
  });

  it('masks unknown codes and codeless errors, with the original message only when details are on', () => {
    const raw = {
      message: 'connect ECONNREFUSED 10.1.2.3:8136',
      path: ['me'],
      extensions: { code: 'ECONNREFUSED', serviceName: 'identity', errno: -111 },
    };
    expect(sanitizeError(raw)).toEqual({
      message: 'Internal server error',
      path: ['me'],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(sanitizeError(new GraphQLError("Cannot read properties of undefined (reading 'x')"))).toEqual({
      message: 'Internal server error',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    expect(sanitizeError(raw, { exposeDetails: true }).extensions).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      detail: raw.message,
      originalCode: 'ECONNREFUSED',
      serviceName: 'identity',
    });
  });
});
