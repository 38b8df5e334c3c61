/** `bun .ci/database.ts create|drop <admin url> <name>`: the CI run's throw-away database. */
import postgres from 'postgres'

const [action, url, name] = process.argv.slice(2)
if (!['create', 'drop'].includes(action) || !url || !/^[a-z0-9_]+$/.test(name ?? '')) {
  console.error('usage: bun .ci/database.ts create|drop <admin url> <name>')
  process.exit(2)
}
const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 })
try {
  if (action === 'create') await sql.unsafe(`CREATE DATABASE ${name}`)
  else await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  console.log(`CI: ${action === 'create' ? 'created' : 'dropped'} database ${name}`)
} catch (error) {
  console.error(`CI: could not ${action} database ${name}: ${error instanceof Error ? error.message : error}`)
  process.exit(1)
} finally {
  await sql.end()
}
