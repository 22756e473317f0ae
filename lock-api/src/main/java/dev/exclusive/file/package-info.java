/**
 * The {@code file} store: locks shared by the processes of one host through files in a folder they all can
 * write, with no server to run.
 */
package dev.exclusive.file;
