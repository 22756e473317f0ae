/**
 * The demo's web pages outside JAX-RS and the console: the landing page at {@code /demo/}, and the banner that
 * {@code liberty:run} prints once the demo answers.
 */
package dev.exclusive.demo.web;
