// Swagger UI over this server's own document. "Authorize" takes a depot's access key (sent as
// x-access-key by "Try it out"); validatorUrl null keeps the page from calling an outside
// validator, so it works offline.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/v2/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
});
