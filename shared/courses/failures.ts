import { notFound } from '#shared/errors.ts';

/** A course path that names no course: the reference's words. */
export const courseNotFound = () => notFound('Failed to load course. Check course title and ensure it exists.');
