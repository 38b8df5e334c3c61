/** Schemas the template, tag and app routes share. */
import { MAX_INT32 } from '../../domain/common.ts'
import { intParam, t } from '../schemas.ts'

export const literals = (values: readonly string[]) => t.Union(values.map((v) => t.Literal(v)))

/** `/:id/versions/:n`: a resource id and a version number. */
export const VersionParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 64 }),
  n: intParam('n', { minimum: 1, maximum: MAX_INT32 }, 'params'),
})
