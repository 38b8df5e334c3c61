/**
 * The shapes of the expression language. A string in a workflow definition parses to a Template;
 * each `{{ … }}` in it is an Expression: terms joined by `||`, each a path or a literal.
 * Types and the syntax error only; nothing here parses or evaluates.
 */

/** A path term such as `root.result.body.rows.0.name`; `text` is that term's source. */
export interface PathRef {
  root: string
  path: string[]
  text: string
}

export type Term = { kind: 'path'; ref: PathRef } | { kind: 'literal'; value: unknown }

/** One `{{ … }}`; `source` is its text as written, braces included. */
export interface Expression {
  terms: Term[]
  source: string
}

export type Template =
  | { kind: 'plain'; value: string }
  | { kind: 'whole'; expr: Expression }
  | { kind: 'text'; parts: Array<string | Expression> }

/** Gives the value of a root (`$trigger`, `$vars`, a node id …); undefined when it is unknown. */
export type Lookup = (root: string) => unknown

/** A malformed template; `offset` is the index in the parsed string where the problem starts. */
export class ExpressionSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(`${reason} at offset ${offset}`)
    this.name = 'ExpressionSyntaxError'
  }
}
