#!/usr/bin/env bun
/**
 * The `automaton` command of a checkout: `npx automaton orgs create acme | jq -r .id` runs the same
 * command line as the built binary, with Bun (installed beside the project), printing only JSON on
 * standard output.
 */
import { main } from '../main.ts'

main()
