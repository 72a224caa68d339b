import { graderSuite } from "./suite";

graderSuite("06-add-rms-norm");
