/** `AUTOMATON_OIDC_GROUP_ROLES`: how pairs are read, refused, and resolved to the highest role. */
import { describe, expect, it } from 'bun:test'
import { loadConfig } from '../../core/config.ts'
import { parseGroupRoles, rolesOfGroups } from '../../core/domain/oidc.ts'

describe('group roles', () => {
  it('reads group=organization:role pairs, the organization by id or name', () => {
    expect(parseGroupRoles(' automation-ops=acme:developer, admins=org_01ABC:owner ,')).toEqual([
      { group: 'automation-ops', organization: 'acme', role: 'developer' },
      { group: 'admins', organization: 'org_01ABC', role: 'owner' },
    ])
  })

  it('gives the highest role when several groups name one organization', () => {
    const mapping = parseGroupRoles('a=acme:viewer,b=acme:owner,c=acme:developer,d=beta:viewer')
    expect(Object.fromEntries(rolesOfGroups(mapping, ['a', 'c']))).toEqual({ acme: 'developer' })
    expect(Object.fromEntries(rolesOfGroups(mapping, ['c', 'b', 'd']))).toEqual({ acme: 'owner', beta: 'viewer' })
    expect(rolesOfGroups(mapping, ['unmapped']).size).toBe(0)
  })

  it('stops the process at start on a pair it cannot read, naming the variable', () => {
    for (const bad of ['ops=acme', 'ops=acme:admin', '=acme:owner', 'ops=:owner'])
      expect(() => loadConfig({ AUTOMATON_OIDC_GROUP_ROLES: bad })).toThrow(/AUTOMATON_OIDC_GROUP_ROLES/)
  })
})
