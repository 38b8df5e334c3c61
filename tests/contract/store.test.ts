import { storeKinds } from '../helpers/services.ts'
import { openTestStore } from '../helpers/stores.ts'
import { describeStoreContract } from './store.contract.ts'

for (const kind of storeKinds()) describeStoreContract(kind, () => openTestStore(kind))
