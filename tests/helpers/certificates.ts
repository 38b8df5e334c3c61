/** Self-signed certificates for HTTPS tests (made by openssl), and what a server shows a client. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import tls from 'node:tls'

/** A certificate for localhost and 127.0.0.1 whose subject's common name is `name`, as files in `dir`. */
export async function makeCertificate(dir: string, name: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, `${name}.crt`)
  const key = join(dir, `${name}.key`)
  const child = Bun.spawn(
    [
      'openssl',
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdout: 'pipe', stderr: 'pipe' },
  )
  if ((await child.exited) !== 0) throw new Error(`openssl failed: ${await new Response(child.stderr).text()}`)
  return { cert, key }
}

/** The PEM text of a certificate made by makeCertificate. */
export const pemOf = (files: { cert: string; key: string }) => ({
  cert: readFileSync(files.cert, 'utf8'),
  key: readFileSync(files.key, 'utf8'),
})

/** The certificate a new connection is served, by its subject's common name. */
export function servedName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN))
      socket.end()
    })
    socket.on('error', reject)
  })
}
