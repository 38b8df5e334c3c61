import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'
import { contains, EmailMessage, TAGS } from '../schemas.ts'

/** Any new message in a mailbox folder (optionally from a sender). */
export const newEmailReceived = defineTrigger({
  type: 'email-new-email-received',
  name: 'New e-mail',
  description: 'A new message arrives in a mailbox (an imap connector), optionally only from a sender.',
  tags: TAGS,
  platform: 'email',
  connector: { type: 'imap' },
  payload: Type.Object({
    folder: Type.Optional(Type.String({ minLength: 1, default: 'INBOX' })),
    from: Type.Optional(Type.String({ minLength: 1, description: 'part of the sender address' })),
  }),
  result: TriggerEvent(EmailMessage),
  waitPayload: Type.Object({ from: Type.Optional(Type.String()), subject: Type.Optional(Type.String()) }),
  matches: (config, { body }) => contains(body.from, config.from),
})

/** A new message that meets every criterion given. */
export const newEmailMatchingCriteria = defineTrigger({
  type: 'email-new-email-matching-criteria',
  name: 'New e-mail matching criteria',
  description:
    'A new message arrives that meets every given criterion (sender, recipient, subject or body text, attachments); text matches ignore case.',
  tags: TAGS,
  platform: 'email',
  connector: { type: 'imap' },
  payload: Type.Object(
    {
      from: Type.Optional(Type.String({ minLength: 1 })),
      to: Type.Optional(Type.String({ minLength: 1 })),
      subjectContains: Type.Optional(Type.String({ minLength: 1 })),
      bodyContains: Type.Optional(Type.String({ minLength: 1 })),
      hasAttachment: Type.Optional(Type.Boolean()),
    },
    { minProperties: 1 },
  ),
  result: TriggerEvent(EmailMessage),
  waitPayload: Type.Object({ from: Type.Optional(Type.String()), subject: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    contains(body.from, config.from) &&
    (config.to === undefined || body.to.some((t) => contains(t, config.to))) &&
    contains(body.subject, config.subjectContains) &&
    contains(body.text, config.bodyContains) &&
    (config.hasAttachment === undefined || config.hasAttachment === body.attachments.length > 0),
})
