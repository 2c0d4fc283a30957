import { Card } from "@/app/ui/card";
import { ROLES } from "@/server/domain/actors";
import { ACTIONS, PERMISSIONS, PERMISSION_AREAS, may, roleSummary } from "@/server/domain/permissions";
import { viewerIsAdmin } from "../admin-only";

/**
 * What each role may do, read from the permission table every service authorizes through
 * (server/domain/permissions.ts), so what an admin reads here is what the server enforces.
 */
export default async function RolesSettingsPage() {
  if (!(await viewerIsAdmin())) return null;
  return (
    <div className="space-y-4">
      <Card title="Roles" id="roles-summary">
        <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
          People sign in as viewer, lead or admin; API tokens may also be agents, verifiers and orchestrators. Whatever the role, a claimant never verifies or
          blocks its own claim, and nobody scores an attempt they recorded.
        </p>
        <dl className="grid gap-2 text-sm sm:grid-cols-[max-content_1fr] sm:gap-x-4">
          {ROLES.map((role) => (
            <div key={role} className="contents">
              <dt className="font-medium">{role}</dt>
              <dd className="text-zinc-700 dark:text-zinc-300">{roleSummary(role)}</dd>
            </div>
          ))}
        </dl>
      </Card>
      <Card title="Who may do what" id="permissions">
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Each action and the roles that may take it</caption>
            <thead>
              <tr className="border-b border-zinc-200 dark:border-zinc-800">
                <th scope="col" className="py-2 pr-3 font-medium">
                  Action
                </th>
                {ROLES.map((role) => (
                  <th key={role} scope="col" className="px-2 py-2 text-center font-medium">
                    {role}
                  </th>
                ))}
                <th scope="col" className="py-2 pl-3 font-medium">
                  Refused as
                </th>
              </tr>
            </thead>
            {PERMISSION_AREAS.map((area) => (
              <tbody key={area}>
                <tr>
                  <th scope="rowgroup" colSpan={ROLES.length + 2} className="pt-3 pb-1 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
                    {area}
                  </th>
                </tr>
                {ACTIONS.filter((action) => PERMISSIONS[action].area === area).map((action) => (
                  <tr key={action} className="border-b border-zinc-100 dark:border-zinc-800/60">
                    <th scope="row" className="py-1.5 pr-3 font-normal">
                      {PERMISSIONS[action].does}
                    </th>
                    {ROLES.map((role) => (
                      <td key={role} className="px-2 py-1.5 text-center">
                        {may(role, action) ? (
                          <span aria-label={`${role} may`}>✓</span>
                        ) : (
                          <span aria-label={`${role} may not`} className="text-zinc-300 dark:text-zinc-700">
                            –
                          </span>
                        )}
                      </td>
                    ))}
                    <td className="py-1.5 pl-3 font-mono text-xs text-zinc-600 dark:text-zinc-400">{PERMISSIONS[action].rule}</td>
                  </tr>
                ))}
              </tbody>
            ))}
          </table>
        </div>
      </Card>
    </div>
  );
}
