package dev.exclusive.demo.rest;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** Every demo endpoint lives under {@code /api}. */
@ApplicationPath("api")
public class DemoApplication extends Application {}
