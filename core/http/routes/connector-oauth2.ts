/**
 * OAuth2 connector routes: the start of an authorization (a redirect to the provider) and the
 * provider's redirect back. The callback takes no API key: the single-use state it carries is
 * its credential.
 */
import { Elysia } from 'elysia'
import { CALLBACK_PATH, type ConnectorOAuth2Service } from '../../services/connector-oauth2.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, t } from '../schemas.ts'

const tags = ['connectors']

const StartQuery = t.Object({
  redirect: t.Optional(
    t.Union([t.Literal('true'), t.Literal('false')], {
      description: 'false: answer { authorizationUrl } as JSON instead of redirecting (for API clients)',
    }),
  ),
})

const CallbackQuery = t.Object({
  code: t.Optional(t.String({ maxLength: 4096 })),
  state: t.Optional(t.String({ maxLength: 512 })),
  error: t.Optional(t.String({ maxLength: 256 })),
  error_description: t.Optional(t.String({ maxLength: 1024 })),
})

export function connectorOAuth2Routes(auth: AuthPlugin, oauth2: ConnectorOAuth2Service) {
  return new Elysia({ name: 'routes.connector-oauth2', prefix: '/v1/connectors' })
    .use(auth)
    .get(
      '/:id/oauth2/start',
      async ({ principal, params, query }) => {
        const { authorizationUrl } = await oauth2.start(principal, params.id)
        if (query.redirect === 'false') return { authorizationUrl }
        return new Response(null, { status: 302, headers: { location: authorizationUrl, 'cache-control': 'no-store' } })
      },
      {
        permission: 'connector:update',
        params: IdParams,
        query: StartQuery,
        detail: doc({
          summary: "Start an OAuth2 connector's authorization",
          description: `Redirects (302) to the provider's authorization page (authorization code with PKCE); the provider sends the person back to ${CALLBACK_PATH} under AUTOMATON_PUBLIC_URL, the redirect URI to register with it. With redirect=false the answer is { authorizationUrl } instead. 409 when AUTOMATON_PUBLIC_URL is not set or the connector's type is not an authorization-code OAuth2 type. The authorization must finish within 10 minutes.`,
          tags,
          permission: 'connector:update',
          response: t.Object({ authorizationUrl: t.String() }),
          errors: [404, 409],
        }),
      },
    )
    .get(
      '/oauth2/callback',
      async ({ query }) => {
        const { connectorId } = await oauth2.callback(query)
        return new Response(null, {
          status: 303,
          headers: {
            location: `/connectors?connected=${encodeURIComponent(connectorId)}`,
            'cache-control': 'no-store',
          },
        })
      },
      {
        query: CallbackQuery,
        detail: doc({
          summary: "The OAuth2 provider's redirect back (the redirect URI)",
          description:
            "No API key: the state is the credential, good once and for 10 minutes. Exchanges the code for tokens, which are sealed and kept current, then redirects (303) to the console's connectors page. 400 for an unknown, used or expired state, and when the provider answers an error (the connector's state becomes reconnect_needed).",
          tags,
          errors: [400, 502],
        }),
      },
    )
}
