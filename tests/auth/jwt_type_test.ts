/**
 * The RFC 9068 `typ` check: off by default (many authorization servers
 * type access tokens `JWT`), and with `requireAtJwtType` only `at+jwt` or
 * `application/at+jwt` passes, so another JWT of the issuer (an ID token)
 * cannot stand in for an access token.
 */

import assert from "node:assert/strict";
import { modernPost } from "../_helpers/http_helpers.ts";
import { jose } from "../_helpers/auth_server.ts";
import { rejectionReason } from "../../src/auth/jwt.ts";
import { AUDIENCE, authServer, bearer, CALL_WHOAMI, withAs } from "../_helpers/auth_fixture.ts";

Deno.test("typ is checked only with requireAtJwtType, as at+jwt with or without application/", async () => {
  await withAs(async (as) => {
    const claims = { sub: "alice", aud: AUDIENCE, scope: "orders:read" };
    const typed = async (typ: string | undefined) => await as.mint(claims, undefined, { typ });
    const cases: [string | undefined, number, number][] = [
      // typ, status by default, status with requireAtJwtType
      ["at+jwt", 200, 200],
      ["application/at+jwt", 200, 200],
      ["AT+JWT", 200, 200],
      ["JWT", 200, 401],
      ["id_token+jwt", 200, 401],
      [undefined, 200, 401],
    ];
    const lax = authServer(as).server;
    const strict = authServer(as, { requireAtJwtType: true }).server;
    for (const [typ, laxStatus, strictStatus] of cases) {
      const token = await typed(typ);
      for (const [server, status] of [[lax, laxStatus], [strict, strictStatus]] as const) {
        const response = await modernPost(server, CALL_WHOAMI, bearer(token));
        assert.equal(response.status, status, `typ ${typ}`);
        if (status === 401) {
          assert.match(response.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
        }
        await response.body?.cancel();
      }
    }
    await lax.close();
    await strict.close();
  });
});

Deno.test("jose's refusals map to fixed audit reasons, a wrong typ included", () => {
  const failed = (claim: string) => new jose.errors.JWTClaimValidationFailed("x", {}, claim);
  const cases: [unknown, string][] = [
    [failed("typ"), "wrong_type"],
    [failed("aud"), "wrong_audience"],
    [failed("iss"), "wrong_issuer"],
    [failed("nbf"), "not_yet_valid"],
    [failed("exp"), "missing_exp"],
    [failed("jti"), "invalid_claim"],
    [new jose.errors.JWTExpired("x", {}), "expired"],
    [new jose.errors.JWSSignatureVerificationFailed(), "bad_signature"],
    [new jose.errors.JWKSNoMatchingKey(), "unknown_key"],
    [new Error("something else"), "invalid_token"],
    ["not an error", "invalid_token"],
  ];
  for (const [error, reason] of cases) assert.equal(rejectionReason(error), reason);
});
