/** The demo's REST endpoints (JSON through JSON-B), under {@code /api}. */
package dev.exclusive.demo.rest;
