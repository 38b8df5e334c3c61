import { type Static, Type as t } from '@sinclair/typebox'
import { Timestamp } from './common.ts'

export const Organization = t.Object({
  id: t.String(),
  name: t.String(),
  createdAt: Timestamp,
}, { $id: 'Organization' })
export type Organization = Static<typeof Organization>
