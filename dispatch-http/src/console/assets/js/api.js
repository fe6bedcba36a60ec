// A small client of the v2 API: the access key goes in the x-access-key header only, errors
// come back as the spec's envelope ({name, statusCode, description, details}).

/** An error answer of the API (or a network failure, statusCode 0). */
export class ApiError extends Error {
  constructor(statusCode, name, description, details = {}) {
    super(`${name} (${statusCode}): ${description}`);
    this.statusCode = statusCode;
    this.name = name;
    this.description = description;
    this.details = details;
  }
}

// The page asks for 429 RATE_LIMIT_EXCEEDED (instead of 403) on rate limits, so a rate limit
// cannot be mistaken for a permission problem; it waits and retries a few times.
const FEATURES = "rate-limit-429";
const RATE_LIMIT_RETRIES = 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Api {
  /** @param {string} key the depot's access key; @param {(text: string) => void} onWait */
  constructor(key, onWait = () => {}) {
    this.key = key;
    this.onWait = onWait;
  }

  /** GET `path` (relative to the page, e.g. "v2/plans/3"); resolves to { body, headers }. */
  get(path) {
    return this.request("GET", path);
  }

  /** POST `path`, with `body` as JSON when given. */
  post(path, body) {
    return this.request("POST", path, body);
  }

  /** PUT `path` with `body` as JSON. */
  put(path, body) {
    return this.request("PUT", path, body);
  }

  async request(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch(new URL(path, document.baseURI), {
          method,
          headers: {
            "x-access-key": this.key, "x-svc-api-features": FEATURES, accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          cache: "no-store",
          credentials: "omit",
          referrerPolicy: "no-referrer",
        });
      } catch (e) {
        throw new ApiError(0, "NETWORK_ERROR", `the service cannot be reached (${e.message})`);
      }
      const text = await response.text();
      let answer = null;
      try {
        answer = text ? JSON.parse(text) : null;
      } catch {
        answer = null;
      }
      if (response.ok) return { body: answer, headers: response.headers };
      if (response.status === 429 && attempt < RATE_LIMIT_RETRIES) {
        const seconds = Number(answer?.details?.retry_after_seconds ?? response.headers.get("retry-after") ?? 1);
        this.onWait(`Rate limit reached; retrying in ${seconds} s…`);
        await sleep(Math.max(1, seconds) * 1000);
        continue;
      }
      if (answer && typeof answer.name === "string") {
        throw new ApiError(response.status, answer.name, answer.description ?? "", answer.details ?? {});
      }
      throw new ApiError(response.status, "HTTP_ERROR", text.slice(0, 200) || response.statusText);
    }
  }

  /**
   * Every page of a list: yields each page's body, following the Link header's rel=next.
   * The next URL is absolute on the service's public address; only its query is taken, so the
   * page keeps talking to the origin it was loaded from.
   */
  async *pages(path) {
    let next = path;
    while (next) {
      const { body, headers } = await this.get(next);
      yield body;
      const target = nextLink(headers.get("link"));
      next = target ? path.split("?")[0] + new URL(target, document.baseURI).search : null;
    }
  }
}

/** The rel="next" target of a Link header, or null. */
export function nextLink(header) {
  if (!header) return null;
  for (const part of header.split(",")) {
    const match = part.match(/<([^>]*)>\s*;(.*)/);
    if (match && /rel="?next"?/.test(match[2])) return match[1];
  }
  return null;
}
