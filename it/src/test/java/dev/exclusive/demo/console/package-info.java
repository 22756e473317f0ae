/**
 * Browser tests of the lock console (lock-admin-ui) in the demo WAR: headless Chromium driven by Selenium, with
 * Debian's chromium and chromedriver (no driver download).
 */
package dev.exclusive.demo.console;
