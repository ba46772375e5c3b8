/** The bounds of grade inquiries, apart from their rules so the route definitions (and the OpenAPI function) read them alone. */

/** The longest post (characters); with MAX_POSTS an inquiry stays far below DynamoDB's item limit. */
export const MAX_CONTENT_LENGTH = 2000;
/** The most posts an inquiry holds, its opening one included. */
export const MAX_POSTS = 30;
/** Inquiries per page of the list when page_size is left out. */
export const INQUIRY_PAGE = 50;
