/** The part of `oidc-provider` (which ships no types) the OAuth2 and single sign-on tests use. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    on(event: string, listener: (...args: any[]) => void): this
    readonly Client: { find(id: string): Promise<unknown> }
    readonly IdToken: new (
      claims: Record<string, unknown>,
      options: { client: unknown; ctx: unknown },
    ) => {
      mask: Record<string, unknown>
      set(claim: string, value: unknown): void
      issue(options: { use: 'idtoken' | 'logout' }): Promise<string>
    }
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
  }
}
