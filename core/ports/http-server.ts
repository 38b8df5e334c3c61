/** A listening HTTP server, as the server adapters (one per runtime) return it. */
export interface HttpServer {
  readonly port: number
  /** Whether it answers HTTPS. */
  readonly secure: boolean
  /** Stops accepting connections; `graceful` lets in-flight requests finish. */
  stop(graceful?: boolean): Promise<void>
  /**
   * HTTPS only: serves a new certificate to every new connection from now on. Connections
   * already open finish on the old one. Throws (and keeps the old one) when the PEM is unusable.
   */
  reloadTls(tls: TlsPem): Promise<void>
}

/** A certificate chain and its private key, PEM text. */
export interface TlsPem {
  readonly cert: string
  readonly key: string
}

export interface ServeOptions {
  readonly port: number
  readonly host: string
  readonly maxBodyBytes: number
  /** HTTPS with this certificate; plain HTTP without it. */
  readonly tls?: TlsPem
}

export type FetchHandler = (request: Request) => Response | Promise<Response>
