/**
 * The built-in plugins, in load order; main.ts loads these, then the external ones
 * (AUTOMATON_PLUGINS_DIR). Each is written against the plugin SDK only.
 */
import type { PluginDefinition } from '../core/plugin/sdk.ts'
import chatapp from './chatapp/index.ts'
import corePlugin from './builtin/index.ts'
import agents from './agents/index.ts'
import crosschain from './crosschain/index.ts'
import email from './email/index.ts'
import eventsource from './eventsource/index.ts'
import eventmarket from './eventmarket/index.ts'
import feed from './feed/index.ts'
import mailapp from './mailapp/index.ts'
import marketdata from './marketdata/index.ts'
import markets from './markets/index.ts'
import messenger from './messenger/index.ts'
import microblog from './microblog/index.ts'
import onchain from './onchain/index.ts'
import paygateway from './paygateway/index.ts'
import paylink from './paylink/index.ts'
import payprovider from './payprovider/index.ts'
import perpdex from './perpdex/index.ts'
import predictmarket from './predictmarket/index.ts'
import social from './social/index.ts'
import spendapp from './spendapp/index.ts'
import webshop from './webshop/index.ts'

export const BUILT_IN_PLUGINS: readonly PluginDefinition[] = [
  corePlugin,
  agents,
  onchain,
  markets,
  email,
  chatapp,
  messenger,
  mailapp,
  predictmarket,
  eventmarket,
  webshop,
  spendapp,
  payprovider,
  paygateway,
  paylink,
  crosschain,
  social,
  microblog,
  perpdex,
  marketdata,
  eventsource,
  feed,
]
