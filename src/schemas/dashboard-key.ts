/**
 * What the dashboard's key may do (`GET /dashboard/api/key`): what the server answers and the page
 * reads, so it offers a key only the controls it may use. Not part of the v1 or control API (nor
 * of the OpenAPI document): the dashboard's own data.
 */

/** The answer: the key's permissions (`read`, and `create` for a key that may change things). */
export interface DashboardKeyView {
  permissions: Array<'create' | 'read' | 'accounts'>;
}
