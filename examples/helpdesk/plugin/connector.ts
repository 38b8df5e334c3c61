/**
 * The help desk's connector type: an OAuth2 client of the organization's help-desk site. The host
 * runs the authorization (code with PKCE), keeps the tokens sealed and current, and hands every
 * handler the data with an `accessToken`; `test` says whether the token reaches the API.
 */
import type { Sdk } from 'automaton/sdk'
import { helpdeskApi } from './api.ts'

export function helpdeskConnector({ defineConnector, Type, Secret }: Sdk) {
  return defineConnector({
    type: 'helpdesk',
    name: 'Help desk',
    description: 'A help-desk site and the OAuth2 client Automaton signs in with.',
    provider: 'Example Help Desk',
    data: Type.Object({
      siteUrl: Type.String({ format: 'uri', description: 'the site, e.g. https://acme.helpdesk.example' }),
      clientId: Type.String({ minLength: 1 }),
      clientSecret: Secret({ description: "the OAuth2 client's secret" }),
    }),
    oauth2: {
      grant: 'authorization_code',
      authorizationUrl: (data) => `${data.siteUrl}/oauth/authorize`,
      tokenUrl: (data) => `${data.siteUrl}/oauth/token`,
      scopes: ['openid', 'api'],
      // The help desk answers an expired token with 200 and an error in the body, not a 401.
      isExpired: (response) => response.status === 200 && response.body.includes('"token_expired"'),
    },
    async test(ctx) {
      const response = await helpdeskApi(ctx, ctx.data).get('/api/me')
      if (response.status !== 200) return { ok: false, message: `the help desk answered ${response.status}` }
      return { ok: true, message: `signed in as ${JSON.parse(response.body).name}` }
    },
  })
}
