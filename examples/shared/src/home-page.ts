/**
 * The HTML home page of the example to-do applications, linking their own API and covgate's
 * health check under `covgatePath` (where the application mounts covgate, e.g. `/coverage`).
 */
export function homePage(covgatePath: string): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Todo app</title></head>
  <body>
    <h1>Hello from the todo app</h1>
    <p>Its own API is at <a href="/api/todos">/api/todos</a>; covgate is at
      <a href="${covgatePath}/health">${covgatePath}/health</a>.</p>
  </body>
</html>
`;
}
