/**
 * The configured database when it does not exist yet: created through the server's maintenance
 * database when the role may (CREATEDB), or one line telling the operator to run `createdb`.
 * Nothing else about the server is changed; an existing database is never touched here.
 */
import postgres from 'postgres'

/** Whether a connection failed because its database does not exist (SQLSTATE 3D000). */
export const isMissingDatabase = (error: unknown): boolean => (error as { code?: string } | null)?.code === '3D000'

/** The database a `postgres://` URL names. */
export const databaseNameOf = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1))

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

async function createThrough(url: string, maintenance: string, name: string): Promise<void> {
  const admin = new URL(url)
  admin.pathname = `/${maintenance}`
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {}, fetch_types: false, connect_timeout: 10 })
  try {
    await sql.unsafe(`CREATE DATABASE ${quoted(name)}`)
  } catch (error) {
    // Another process created it meanwhile: it exists, which is what was wanted.
    if ((error as { code?: string }).code !== '42P04') throw error
  } finally {
    await sql.end({ timeout: 5 })
  }
}

/** The command that creates the database by hand, for the URL's host, port and user. */
export function createdbCommand(url: string): string {
  const parsed = new URL(url)
  const options = [
    parsed.hostname ? `-h ${parsed.hostname}` : '',
    parsed.port ? `-p ${parsed.port}` : '',
    parsed.username ? `-U ${decodeURIComponent(parsed.username)}` : '',
  ].filter(Boolean)
  return ['createdb', ...options, databaseNameOf(url)].join(' ')
}

/**
 * Creates the URL's database, through the `postgres` maintenance database or else `template1`.
 * Resolves to null when created, or to why it could not be (the role may not create databases,
 * no maintenance database answers).
 */
export async function createDatabase(url: string): Promise<string | null> {
  const name = databaseNameOf(url)
  let reason = 'no maintenance database answered'
  for (const maintenance of ['postgres', 'template1']) {
    if (maintenance === name) continue
    try {
      await createThrough(url, maintenance, name)
      return null
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error)
      // A maintenance database that is missing or closed to this role: try the next one.
      const code = (error as { code?: string }).code
      if (code !== '3D000' && code !== '28000') return reason
    }
  }
  return reason
}
