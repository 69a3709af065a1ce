import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * A Base URL the node refuses (transport/api.ts, baseUrlProblem): not empty, yet not an http(s) address without a
 * query string or fragment.
 */
const MALFORMED_BASE_URL = '^(?!\\s*$)(?!\\s*https?://[^\\s?#]+\\s*$)';

export class MediaGenApi implements ICredentialType {
	name = 'mediaGenApi';

	displayName = 'MediaGen API';

	icon: Icon = { light: 'file:../icons/mediaGen.svg', dark: 'file:../icons/mediaGen.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-mediagen/n8n-nodes-mediagen#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'Your API key, exactly as you got it (the node adds no "Bearer" prefix)',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description: 'Root address of the API, e.g. https://api.example.com. A trailing /v1 or slash is ignored.',
		},
		{
			// Shown under the field while the Base URL is not usable (the test cannot explain it: see `test`).
			displayName:
				'The Base URL must start with http:// or https:// and have no query string (?…) or fragment (#…): the API paths are appended to it.',
			name: 'baseUrlNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { baseUrl: [{ _cnd: { regex: MALFORMED_BASE_URL } }] } },
		},
	];

	// The API takes the key itself as the header value: no "Bearer" prefix.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{$credentials.apiKey}}',
			},
		},
	};

	// Querying a task id that cannot exist is free and changes nothing. A right key gets HTTP 200 (with a
	// "task not found" envelope): the test passes. A wrong key is refused with an HTTP error (401 on the
	// simulator). n8n shows a failed test request with the rule's message for its status code, or else only
	// the HTTP reason phrase ("Unauthorized"); it cannot show the body's msg, so the rules say what to fix.
	// The base URL is normalised as in transport/normalizeBaseUrl (trailing slashes, then a trailing /v1). A Base URL
	// with a query string or fragment would send the test to the API's root with the key: it becomes an address that
	// cannot be parsed, so nothing is sent and the test fails. (n8n shows a failure without an HTTP answer as the
	// error's code or text, e.g. "Invalid URL" or "ECONNREFUSED"; a declarative test cannot reword it, and a test
	// function would need the deprecated request helper. The notice above says what is wrong.)
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{/[?#]/.test($credentials.baseUrl) ? "Base URL with a query string or fragment" : $credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/v1$/i, "")}}',
			url: '/v1/tlimages/infobytaskid',
			method: 'POST',
			body: { taskid: 'n8n-credential-test' },
			json: true,
			// A redirect fails the test instead of carrying the key to wherever it points.
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API refused this API key (HTTP 401 Unauthorized). Check the API Key: paste it exactly as issued, without "Bearer".',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API refused this API key (HTTP 403 Forbidden). Check the API Key and that the account may use the API.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this Base URL (HTTP 404 Not Found). Enter the root address of the API, e.g. https://api.example.com.',
				},
			},
		],
	};
}
