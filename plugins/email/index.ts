/** Generic e-mail triggers on an IMAP mailbox. */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { imapConnector } from './schemas.ts'
import { newEmailMatchingCriteria, newEmailReceived } from './triggers/new-email.ts'

export default definePlugin({
  id: 'email',
  name: 'E-mail',
  version: '1.0.0',
  description: 'Triggers on new messages in an IMAP mailbox.',
  connector: imapConnector,
  triggers: [newEmailReceived, newEmailMatchingCriteria],
})
