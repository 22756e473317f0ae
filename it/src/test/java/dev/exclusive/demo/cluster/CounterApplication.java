package dev.exclusive.demo.cluster;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST root of the slim test deployments. */
@ApplicationPath("api")
public class CounterApplication extends Application {}
