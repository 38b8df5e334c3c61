/**
 * The generic OAuth2 connector: any OAuth2-protected API, for `http-request`. The organization
 * names the provider's endpoints and its client; the host runs the authorization (or mints
 * client-credentials tokens), keeps the tokens current and hands the node an `accessToken`.
 */
import { defineConnector, Secret, Type } from '../../../core/plugin/sdk.ts'

export const oauth2Connector = defineConnector({
  type: 'oauth2',
  name: 'OAuth2',
  description:
    'Any OAuth2-protected API: authorization code with PKCE (authorize at GET /v1/connectors/{id}/oauth2/start) or client credentials. http-request nodes that name it send Authorization: Bearer with a current access token.',
  provider: 'Any OAuth2 provider',
  tags: ['http', 'oauth2', 'core'],
  data: Type.Object({
    grant: Type.Union([Type.Literal('authorization_code'), Type.Literal('client_credentials')], {
      default: 'authorization_code',
    }),
    authorizationUrl: Type.Optional(
      Type.String({ format: 'uri', description: "the provider's authorization endpoint (authorization_code only)" }),
    ),
    tokenUrl: Type.String({ format: 'uri', description: "the provider's token endpoint" }),
    clientId: Type.String({ minLength: 1 }),
    clientSecret: Secret(),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50 })),
  }),
  oauth2: {
    grant: (data) => data.grant,
    authorizationUrl: (data) => data.authorizationUrl ?? '',
    tokenUrl: (data) => data.tokenUrl,
    scopes: (data) => data.scopes ?? [],
  },
})
