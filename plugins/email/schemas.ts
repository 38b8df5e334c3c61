/** The e-mail message the email-* triggers deliver, and the mailbox connector. */
import { defineConnector, Secret, Type } from '../../core/plugin/sdk.ts'

export const EmailMessage = Type.Object({
  messageId: Type.String(),
  from: Type.String(),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  subject: Type.String(),
  text: Type.String({ description: 'the plain-text body' }),
  html: Type.Optional(Type.String()),
  receivedAt: Type.String({ format: 'date-time' }),
  attachments: Type.Array(
    Type.Object({ filename: Type.String(), contentType: Type.String(), size: Type.Integer({ minimum: 0 }) }),
  ),
})

export const imapConnector = defineConnector({
  type: 'imap',
  name: 'Mailbox (IMAP)',
  description: 'A mailbox reached over IMAP: the email-* triggers watch it.',
  provider: 'Any IMAP server',
  tags: ['email'],
  data: Type.Object({
    host: Type.String({ minLength: 1 }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 993 })),
    secure: Type.Optional(Type.Boolean({ default: true })),
    username: Type.String({ minLength: 1 }),
    password: Secret(),
  }),
})

export const TAGS = ['generic', 'email']
export const contains = (text: string, part: string | undefined) =>
  part === undefined || text.toLowerCase().includes(part.toLowerCase())
