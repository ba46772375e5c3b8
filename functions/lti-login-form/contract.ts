/** What `lti-login-form` answers: a redirect or an HTML page naming the cause (shared/http/contract.ts says how they are used). */
import { loginContract } from '#shared/http/lti-answers.ts';

export const contract = loginContract;
