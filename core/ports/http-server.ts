/** A listening HTTP server, as the server adapters (one per runtime) return it. */
export interface HttpServer {
  readonly port: number
  /** Stops accepting connections; `graceful` lets in-flight requests finish. */
  stop(graceful?: boolean): Promise<void>
}

export type FetchHandler = (request: Request) => Response | Promise<Response>
