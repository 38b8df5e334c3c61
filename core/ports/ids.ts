/** Id generation as a port: prefixed, time-sortable, unguessable ids (`run_01J…`). */
export type IdPrefix =
  | 'org' | 'usr' | 'wf' | 'run' | 'key' | 'sa' | 'con' | 'tpl' | 'tag' | 'hook' | 'dlv'
  | 'evt' | 'x402' | 'conv' | 'msg' | 'card' | 'req' | 'tmr' | 'ntf' | 'job' | 'wkr' | 'sch'
  | 'ses' | 'inv' | 'app' | 'ctr' | 'wal' | 'dep' | 'alw' | 'dsc'

export interface Ids {
  next(prefix: IdPrefix): string
}
