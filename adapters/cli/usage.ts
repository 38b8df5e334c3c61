/** The usage text: `automaton help`, `--help`, and after a usage error. */
export function usage(version: string): string {
  return `automaton ${version}

Usage: automaton <command> [options]

  serve                                  serve the API (default); without NATS it also executes runs
  worker                                 execute runs, timers and deliveries (with NATS and Postgres)
  migrate                                apply database migrations and exit
  orgs create <name>                     create an organization; prints it as JSON
  orgs list                              list organizations as JSON
  orgs set <id|name> --fair-share <n>    weight an organization (1 to 1000, default 1) when runs wait to start
  audit verify [--org <id>]              check the audit log's chains; exit 1 at the first broken link
  keys create --org <id|name> --name <n> [--scope read|read-write] [--description <d>] [--expires-at <RFC 3339>]
                                         mint an owner key; prints it as JSON, the raw key in "key"
  credits grant --org <id|name> --amount <n> [--note <text>]
                                         add (or, negative, take away) AI credits of an organization
  devnet [--port 8545]                   a local EVM (anvil) with a test USDC (EIP-3009) and funded accounts;
                                         prints { rpcUrl, chainId, token, accounts, chains } and runs until stopped
  users create --email <e> --org <id|name> [--role owner|developer|viewer] [--name <n>] [--password-file <f>]
                                         make a person who signs in with this email and a password
                                         (from stdin or the file; at least 10 characters)
  users reset-password --email <e> [--password-file <f>]
                                         set a new password (no mail server needed); ends their sessions
  users sign-in-link --email <e>         print a one-time sign-in link (15 minutes): the way in when single sign-on is required
  oidc add <name> --issuer <url> --client-id <id> [--client-secret-file <f>] [--group-roles <g=org:role,…>]
       [--groups-claim groups] [--scopes <s>] [--display-name <n>] [--jit false]
                                         add an OpenID Connect provider (the secret from stdin or the file)
  oidc list | oidc remove <name>         list or remove the providers added (the environment's is "default")
  oidc require-sso --org <id|name> [--required false]
                                         refuse password sign-in to the organization's members
  backup create <file> [--passphrase-file <f>]
                                         write a consistent backup of the embedded store while it serves,
                                         with the master key sealed by a passphrase (from stdin or the file)
  backup restore <file> --data-dir <dir> [--passphrase-file <f>]
                                         restore a backup into a new or empty data dir
  healthcheck [--ready] [--url <url>]    ask this host's serve (or worker, on AUTOMATON_WORKER_PORT) whether it is alive
                                         (/healthz) or ready (/readyz); exits 0 when it is, 1 when not: a container health check
  master-key generate                    print a new random master key
  master-key rotate                      re-seal every stored secret under a new master key; prints it
                                         (see docs/operations.md: with AUTOMATON_MASTER_KEY set, run it
                                         with AUTOMATON_MASTER_KEY=<new> AUTOMATON_MASTER_KEY_PREVIOUS=<old>)
  universe import <file.csv>             replace the situation universe with the file's tickers
                                         (symbol,name,exchange,type,rank); searches answer 503 meanwhile
  version                                print the version

The commands act as the operator of this installation: whoever runs them holds its data directory
or database and its master key, so they are not checked against any permission (the API checks
every caller; see docs/security.md). Each command that changes something is recorded in the audit
log, the actor being this system's user (see docs/audit.md).

Configuration comes from the environment; see docs/configuration.md.`
}
