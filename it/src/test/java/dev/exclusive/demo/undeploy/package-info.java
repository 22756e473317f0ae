/**
 * What an application leaves in the server when it is undeployed: no thread of Exclusive's, and while it runs
 * only threads the container manages.
 */
package dev.exclusive.demo.undeploy;
