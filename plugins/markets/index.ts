/** Generic market triggers: exchange prices and listings, and market situations. Events come from an event source. */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { exchangeListing } from './triggers/exchange-listing.ts'
import { situationFired } from './triggers/situation-fired.ts'
import { tokenPriceCexes } from './triggers/token-price-cexes.ts'

export default definePlugin({
  id: 'markets',
  name: 'Markets',
  version: '1.0.0',
  description:
    'Triggers on centralized-exchange prices and listings and on market situations, fed by the event-source integration.',
  triggers: [tokenPriceCexes, exchangeListing, situationFired],
})
